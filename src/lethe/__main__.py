"""`python -m lethe` runs the command line, for environments without the `lethe` script."""

from lethe.cli import main

if __name__ == "__main__":
    main()
