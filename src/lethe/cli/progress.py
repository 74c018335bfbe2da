"""Progress bars for long work, drawn on stderr and only on a terminal."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from lethe.cli.app import stderr


@contextmanager
def terminal_bar(label: str, total: int, *, show: bool = True) -> Iterator[Callable[[int], None]]:
    """Yield `advance(n)`, drawing a bar on stderr only when stderr is a terminal.

    So `--json` and piped output never carry control codes. stdout is not redirected: rich
    would otherwise send whatever is printed there through the bar's console onto stderr,
    and stdout is where the records and the JSON belong.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    err = stderr()
    if not (show and total and err.is_terminal):
        yield lambda _n: None
        return
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn())
    with Progress(
        *columns, console=err, transient=True, redirect_stdout=False, redirect_stderr=False
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
