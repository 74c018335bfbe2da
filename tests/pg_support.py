"""Throw-away PostgreSQL 16 (+ pgvector 0.6) servers for the tests.

The binaries come from the `pgserver` wheel (a dev dependency): it ships
`pgserver/pginstall/{bin,lib,share}` with pgvector built in, and a bundled libpq in
`pgserver.libs/`, which `initdb` (and `pg_ctl`, `psql`) find via
RPATH `$ORIGIN/../../../pgserver.libs`. Each server lives in its own short
`/tmp/pgtest-XXXX` directory (data/, sock/, server.log), listens on a unix socket
only (`listen_addresses = ''`), runs as a child of this process (not daemonized by
pg_ctl, so it is reaped, never left a zombie) and is stopped by its postmaster pid.

As root the server runs as the `postgres` OS user (`runuser -u postgres --`, the
user is created if missing): PostgreSQL refuses to run as root.

    srv = start_server("lethe_test")         # PgServer; srv.dsn is the lethe_test db
    create_database(srv, "t1", extensions=("vector",))
    ... psycopg.connect(srv.dsn_for("t1")) ...
    drop_database(srv, "t1")
    stop_server(srv)

`external_server(dsn)` wraps a server someone else runs (LETHE_TEST_PG_DSN): the
database helpers work on it, while whatever needs the server's files (pg_hba.conf)
raises NotManagedError, so such tests start their own server instead.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

SUPERUSER = "postgres"
ADMIN_DB = "postgres"
# Files of the pgvector extension, left out of the copy made for with_vector=False.
VECTOR_FILES = ("vector.control", "vector--*.sql", "vector.so")
# All a server needs from bin/ (the postmaster is started directly, without pg_ctl).
SERVER_BINARIES = ("initdb", "postgres")


class PgStartError(RuntimeError):
    """The test server could not be started; the message carries stderr and server.log."""


class NotManagedError(RuntimeError):
    """The operation needs a server started by start_server() (it edits the server's files)."""


@dataclasses.dataclass
class PgServer:
    dsn: str  # the database named at start: postgresql://postgres@/DB?host=SOCKDIR
    dbname: str
    managed: bool  # True: started by start_server(), we own its files and its superuser
    base: Path | None = None  # temp dir holding data/, sock/, server.log (and pkg/)
    datadir: Path | None = None
    sockdir: Path | None = None
    bindir: Path | None = None
    os_user: str | None = None  # OS user the server runs as ("postgres" when we are root)
    pid: int | None = None  # the postmaster
    with_vector: bool = True
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    proc: subprocess.Popen[bytes] | None = dataclasses.field(default=None, repr=False)

    def dsn_for(self, dbname: str) -> str:
        """The same connection parameters, for another database on this server."""
        return with_dbname(self.dsn, dbname)

    @property
    def admin_dsn(self) -> str:
        return self.dsn_for(ADMIN_DB)

    def log(self, tail: int = 4000) -> str:
        if self.base is None or not (self.base / "server.log").exists():
            return ""
        return (self.base / "server.log").read_text(errors="replace")[-tail:]


def with_dbname(dsn: str, dbname: str) -> str:
    """Replace the database of a DSN, keeping a URL a URL and a key=value string one."""
    if dsn.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(dsn)
        return urlunsplit(parts._replace(path="/" + quote(dbname, safe="")))
    return make_conninfo(dsn, dbname=dbname)


def external_server(dsn: str) -> PgServer:
    """A server that is not ours (LETHE_TEST_PG_DSN): nothing is started or stopped.

    Its role needs CREATEDB (the per-test databases) and the server needs pgvector."""
    dbname = conninfo_to_dict(dsn).get("dbname") or ADMIN_DB
    try:
        with psycopg.connect(dsn, connect_timeout=10) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as e:  # fail now, with the reason
        raise RuntimeError(f"LETHE_TEST_PG_DSN={dsn!r}: cannot connect: {e}") from e
    return PgServer(dsn=dsn, dbname=str(dbname), managed=False)


def pg_install_dir() -> Path:
    """<site-packages>/pgserver/pginstall (bin/, lib/postgresql/, share/postgresql/)."""
    # find_spec, not `import pgserver`: importing it warns (platformdirs, XDG_RUNTIME_DIR),
    # and only its files are needed, not its API.
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise PgStartError(
            "the pgserver package is missing (it ships PostgreSQL 16 + pgvector): "
            "pip install -e '.[dev]'"
        )
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "pginstall"


# --- servers still running: stopped at interpreter exit, or on SIGTERM (which skips atexit),
# if a session dies before its teardown. SIGKILL of this process leaves them running.
_LIVE: dict[int, PgServer] = {}


def _stop_all_at_exit() -> None:
    for srv in list(_LIVE.values()):
        with contextlib.suppress(Exception):
            stop_server(srv)


def _on_sigterm(signum: int, frame: object) -> None:
    _stop_all_at_exit()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)  # die of SIGTERM as if we had not been here


_cleanup_registered = False


def _register_cleanup() -> None:
    """Called by the first start_server() of the process."""
    global _cleanup_registered
    if _cleanup_registered:
        return
    _cleanup_registered = True
    atexit.register(_stop_all_at_exit)
    # Only where nobody else handles SIGTERM, and only from the main thread (a rule of
    # signal.signal); the process still dies of SIGTERM, after stopping its servers.
    with contextlib.suppress(ValueError):
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)


def _server_user() -> tuple[str | None, int, int]:
    """(user to run the server as or None for ourselves, uid, gid)."""
    if os.geteuid() != 0:
        return None, os.getuid(), os.getgid()
    user = "postgres"
    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        subprocess.run(
            [
                *("useradd", "--system", "--user-group", "--no-create-home"),
                *("--shell", "/usr/sbin/nologin", user),
            ],
            check=True,
            capture_output=True,
        )
        pw = pwd.getpwnam(user)
    return user, pw.pw_uid, pw.pw_gid


def _traversable_by(path: Path, uid: int, gid: int) -> bool:
    """True if every directory down to `path` is searchable by uid/gid."""
    p = path.resolve()
    for d in [*reversed(p.parents), p]:
        st = d.stat()
        if st.st_uid == uid:
            bit = 0o100
        elif st.st_gid == gid:
            bit = 0o010
        else:
            bit = 0o001
        if not st.st_mode & bit:
            return False
    return True


def _copy_install(install: Path, pkg: Path, uid: int, gid: int, *, with_vector: bool) -> Path:
    """Mirror pginstall/ at pkg/pgserver/pginstall and pgserver.libs/ at pkg/pgserver.libs
    (the layout initdb's RPATH expects), for the server user uid/gid. Only the binaries a
    server needs; no headers; without vector, none of pgvector's files. Files are
    hard-linked when they are readable by everyone (fast: no 30 MB copy), else copied and
    chowned. Returns the new pginstall."""
    vector_ignore = shutil.ignore_patterns(*VECTOR_FILES)

    def ignore(directory: str, names: list[str]) -> set[str]:
        skip = set() if with_vector else set(vector_ignore(directory, names))
        if Path(directory) == install:
            skip.add("include")
        elif Path(directory) == install / "bin":
            skip.update(n for n in names if n not in SERVER_BINARIES)
        return skip

    def link_or_copy(src: str, dst: str) -> str:
        mode = os.stat(src).st_mode
        if mode & 0o004 and (mode & 0o001 or not mode & 0o111):
            try:
                os.link(src, dst)
                return dst
            except OSError:  # another file system, or links not allowed
                pass
        shutil.copy2(src, dst)
        os.chown(dst, uid, gid)
        return dst

    dst = pkg / "pgserver" / "pginstall"
    shutil.copytree(install, dst, symlinks=True, ignore=ignore, copy_function=link_or_copy)
    libs = install.parent.parent / "pgserver.libs"
    if libs.is_dir():
        shutil.copytree(libs, pkg / "pgserver.libs", symlinks=True, copy_function=link_or_copy)
    for dirpath, _dirs, _files in os.walk(pkg):
        os.chown(dirpath, uid, gid)
    return dst


def _as(cmd: list[str], as_user: str | None) -> list[str]:
    return ["runuser", "-u", as_user, "--", *cmd] if as_user else cmd


def _read_pidfile(datadir: Path) -> list[str]:
    """postmaster.pid: pid, datadir, start time, port, socket dir, listen address, shmem
    key, status ("starting", "ready", ...)."""
    try:
        return (datadir / "postmaster.pid").read_text().split("\n")
    except OSError:
        return []


def _wait_ready(proc: subprocess.Popen[bytes], datadir: Path, timeout: float) -> int:
    """Wait for the postmaster to report "ready" (what `pg_ctl -w` waits for, polled
    faster); returns its pid."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise PgStartError(f"postgres exited during startup (status {proc.returncode})")
        lines = _read_pidfile(datadir)
        if len(lines) > 7 and lines[7].strip() == "ready":
            return int(lines[0])
        if time.monotonic() > deadline:
            raise PgStartError(f"postgres not ready after {timeout:.0f} s")
        time.sleep(0.01)


def _stop(pid: int | None, proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    """SIGINT ('fast' shutdown) to the postmaster, SIGQUIT ('immediate') if it hangs,
    SIGKILL as a last resort; then reap our child (runuser, or postgres itself), so that
    no zombie is left for init."""
    sequence = ((signal.SIGINT, timeout), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0))
    for sig, wait in sequence:
        try:
            if pid is not None:
                os.kill(pid, sig)
            elif proc is not None and proc.poll() is None:
                os.killpg(proc.pid, sig)  # its own session: runuser and postgres
        except ProcessLookupError:
            pass
        if proc is None:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def start_server(
    dbname: str = "lethe_test",
    *,
    with_vector: bool = True,
    install_dir: Path | None = None,
    timeout: float = 60.0,
) -> PgServer:
    """Start a fresh cluster and create `dbname` in it (with the vector extension when
    with_vector). with_vector=False runs a copy of the installation without pgvector's
    files, so `CREATE EXTENSION vector` fails with 'extension "vector" is not available'.
    Raises PgStartError, with stderr and the server log, when anything fails."""
    t0 = time.perf_counter()
    install = Path(install_dir) if install_dir else pg_install_dir()
    if not (install / "bin" / "postgres").is_file():
        raise PgStartError(f"no PostgreSQL binaries under {install}/bin")
    as_user, uid, gid = _server_user()
    _register_cleanup()

    # Short path: a unix socket path is limited to 107 bytes. mkdtemp() makes it 0700,
    # owned by us; hand it to the server user.
    base = Path(tempfile.mkdtemp(prefix="pgtest-", dir="/tmp"))
    datadir, sockdir, logfile = base / "data", base / "sock", base / "server.log"
    srv = PgServer(
        dsn=f"postgresql://{SUPERUSER}@/{quote(dbname, safe='')}?host={sockdir}",
        dbname=dbname,
        managed=True,
        base=base,
        datadir=datadir,
        sockdir=sockdir,
        os_user=as_user,
        with_vector=with_vector,
    )
    _LIVE[id(srv)] = srv  # from here on the exit/SIGTERM cleanup knows about it
    timings = srv.timings
    try:
        sockdir.mkdir(mode=0o700)
        os.chown(base, uid, gid)
        os.chown(sockdir, uid, gid)

        # A copy when pgvector must be missing, or when the server user cannot reach
        # site-packages (e.g. a venv under /root, which is 0700).
        if not with_vector or not _traversable_by(install / "bin" / "postgres", uid, gid):
            t = time.perf_counter()
            install = _copy_install(install, base / "pkg", uid, gid, with_vector=with_vector)
            timings["copy_install"] = time.perf_counter() - t
        srv.bindir = bindir = install / "bin"

        t = time.perf_counter()
        initdb = [
            *(str(bindir / "initdb"), "-D", str(datadir), "-U", SUPERUSER, "--auth=trust"),
            *("--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"),
        ]
        subprocess.run(
            _as(initdb, as_user), check=True, capture_output=True, text=True, timeout=timeout
        )
        timings["initdb"] = time.perf_counter() - t

        # Socket only; fast, unsafe durability (tests only); no /dev/shm (containers).
        with open(datadir / "postgresql.conf", "a") as f:
            f.write(
                "\nlisten_addresses = ''\n"
                f"unix_socket_directories = '{sockdir}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 100\nshared_buffers = 64MB\n"
                "dynamic_shared_memory_type = mmap\n"
            )

        # The postmaster runs as our child (under runuser when root), not daemonized by
        # pg_ctl: stop_server can then reap it, and no zombie waits on init. Its own
        # session, so that a ^C in the terminal reaches pytest's teardown, not the server.
        t = time.perf_counter()
        with open(logfile, "ab") as log:
            srv.proc = subprocess.Popen(
                _as([str(bindir / "postgres"), "-D", str(datadir)], as_user),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        srv.pid = _wait_ready(srv.proc, datadir, timeout)
        timings["postgres_ready"] = time.perf_counter() - t

        t = time.perf_counter()
        create_database(srv, dbname, extensions=("vector",) if with_vector else ())
        timings["createdb"] = time.perf_counter() - t
    except BaseException as e:
        detail = getattr(e, "stderr", None) or ""
        if isinstance(detail, bytes):
            detail = detail.decode(errors="replace")
        if logfile.exists():
            detail += "\n--- server.log ---\n" + logfile.read_text(errors="replace")[-4000:]
        stop_server(srv, timeout=5.0)
        if not isinstance(e, Exception):  # KeyboardInterrupt and the like: cleaned, re-raise
            raise
        raise PgStartError(
            f"could not start the test PostgreSQL from {install}: {e}\n{detail}"
        ) from e

    timings["start_total"] = time.perf_counter() - t0
    return srv


def stop_server(srv: PgServer, timeout: float = 30.0) -> float:
    """Stop the postmaster by its pid (SIGINT: 'fast' shutdown; SIGQUIT, then SIGKILL, if
    it hangs), reap it and remove its temp dir. A no-op for external servers and for
    servers already stopped. Returns the seconds taken."""
    t = time.perf_counter()
    _LIVE.pop(id(srv), None)
    if not srv.managed or srv.base is None:
        return 0.0
    if srv.pid is None and srv.proc is not None and srv.datadir is not None:
        lines = _read_pidfile(srv.datadir)  # started, not yet ready
        if lines and lines[0].strip().isdigit():
            srv.pid = int(lines[0])
    if srv.pid is not None or srv.proc is not None:
        _stop(srv.pid, srv.proc, timeout)
        srv.pid = srv.proc = None
    shutil.rmtree(srv.base, ignore_errors=True)
    dt = time.perf_counter() - t
    srv.timings["stop"] = dt
    return dt


def _admin(srv: PgServer, fn: Callable[[psycopg.Connection[Any]], object]) -> None:
    with psycopg.connect(srv.admin_dsn, autocommit=True, connect_timeout=10) as conn:
        fn(conn)


def create_database(srv: PgServer, name: str, *, extensions: Iterable[str] = ()) -> str:
    """CREATE DATABASE `name` (from the `postgres` db, autocommit) and the extensions in
    it (the database is dropped again if that fails). Returns its DSN."""
    _admin(srv, lambda c: c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))))
    dsn = srv.dsn_for(name)
    exts = list(extensions)
    try:
        if exts:
            with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
                for ext in exts:
                    conn.execute(
                        sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext))
                    )
    except BaseException:
        with contextlib.suppress(Exception):  # leave no half-made database behind
            drop_database(srv, name)
        raise
    return dsn


def drop_database(srv: PgServer, name: str) -> None:
    """Terminate the database's other connections, then drop it (if it exists)."""

    def drop(conn: psycopg.Connection[Any]) -> None:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        # FORCE also covers a client that reconnects between the two statements (a pool).
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )

    _admin(srv, drop)


def add_password_role(srv: PgServer, role: str, password: str, dbname: str) -> str:
    """Create (or re-password) a login role that may use `dbname` and must authenticate
    with scram-sha-256 over the local socket (everyone else keeps trust).

    Returns a DSN template with a `{password}` field:
    `tpl.format(password=urllib.parse.quote(pw, safe=""))`. Needs a managed server: the
    rule goes into its pg_hba.conf."""
    if not srv.managed or srv.datadir is None:
        raise NotManagedError(
            "add_password_role edits pg_hba.conf, so it needs a server started by "
            "pg_support.start_server(), not LETHE_TEST_PG_DSN; start one in the test"
        )
    role_id = sql.Identifier(role)

    def setup(conn: psycopg.Connection[Any]) -> None:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        verb = "ALTER" if exists else "CREATE"
        conn.execute(
            sql.SQL(verb + " ROLE {} LOGIN PASSWORD {}").format(role_id, sql.Literal(password))
        )
        conn.execute(
            sql.SQL("GRANT ALL PRIVILEGES ON DATABASE {} TO {}").format(
                sql.Identifier(dbname), role_id
            )
        )

    _admin(srv, setup)
    # Since PostgreSQL 15 only the database owner may create in schema public.
    with psycopg.connect(srv.dsn_for(dbname), autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql.SQL("GRANT ALL ON SCHEMA public TO {}").format(role_id))

    hba = srv.datadir / "pg_hba.conf"
    rule = f'local all "{role}" scram-sha-256\n'
    text = hba.read_text()
    if rule not in text:
        hba.write_text(rule + text)  # the first matching line wins
    _admin(srv, lambda c: c.execute("SELECT pg_reload_conf()"))

    template = (
        f"postgresql://{quote(role, safe='')}:{{password}}@/{quote(dbname, safe='')}"
        f"?host={srv.sockdir}"
    )
    # pg_reload_conf() only signals the postmaster: wait until a password is demanded.
    nopw = template.replace(":{password}", "")
    deadline = time.monotonic() + 10
    while True:
        try:
            psycopg.connect(nopw, connect_timeout=5).close()
        except psycopg.OperationalError as e:
            if "password" in str(e):
                break
            raise
        if time.monotonic() > deadline:
            raise RuntimeError(f"pg_hba.conf rule for {role} not in effect after 10 s")
        time.sleep(0.02)
    return template
