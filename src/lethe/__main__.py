"""`python -m lethe` runs the command line, for environments without the `lethe` script."""

from lethe.launch import lethe

if __name__ == "__main__":
    lethe()
