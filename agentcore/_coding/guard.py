"""The bash guard: does a shell command look destructive, and why.

``check_command(command)`` is a pure function: it returns the reason a command would do
irreversible damage (wipe the root or home directory, force-push over main, format or
overwrite a disk, fork-bomb the machine), or None. It reads the command the way a shell
would, rather than matching its text: quotes and escapes are undone (``r''m``,
``"/"``, ``$'\x2f'``), braces are expanded (``/{etc,usr}``), chains are split (``;``,
``&&``, ``||``, ``|``, ``&``, newlines, subshells and ``$(...)``), wrappers are looked
through (``sudo``, ``env``, ``nohup``, ``nice``, ``timeout``, ``setsid``, ``xargs``,
``command``, ``exec``, variable assignments...) and nested shells are read recursively
(``bash -c '...'``, ``sh -c``, ``su -c``, ``eval``, ``bash <<< '...'``, ``echo '...' |
bash``), four levels deep; deeper nesting is flagged (fail closed).

``check_risky(command)`` reads a command the same way for a lower bar: why it may lose
work or reach beyond the project (deleting files, discarding git changes, publishing
with ``git push``, running as root, installing system packages, piping a download into
a shell), or None. The coding agent asks the user before such commands.

It is a safety net against accidents, not a sandbox: a determined command (a script file,
base64 piped to a shell, a variable holding ``/``) gets past any static reading.
"""

from __future__ import annotations

import itertools
import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

__all__ = ["check_command", "check_risky"]

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox-sh"})
_KEYWORDS = frozenset(
    {"!", "{", "}", "(", ")", "if", "then", "else", "elif", "fi", "do", "done", "while"}
    | {"until", "for", "in", "case", "esac", "time", "function", "select", "coproc"}
)
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n"})
# wrapper -> options taking a value (the wrapper's own flags are skipped before the command)
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "caffeinate": frozenset(),
    "busybox": frozenset(),
    "setsid": frozenset(),
    "unbuffer": frozenset(),
    "flock": frozenset({"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "runuser": frozenset({"-u", "-g", "-G", "--user", "--group"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n"}),
    "watch": frozenset({"-n", "--interval", "-q", "--equexit"}),
}
# a duration, priority, mask, lock file or new root comes first
_POSITIONAL_WRAPPERS = {"timeout": 1, "chrt": 1, "taskset": 1, "flock": 1, "chroot": 1}
_SCRIPT_RUNNERS = _SHELLS | {"eval", "su"}  # read a command from -c, eval's words or stdin
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SYSTEM_DIRS = frozenset(
    {"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc"}
    | {"/root", "/sbin", "/srv", "/sys", "/usr", "/var", "/Applications", "/Library"}
    | {"/System", "/Users"}
)
_DISK = re.compile(r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|md\d|dm-)")
_FORK_BOMB = re.compile(r"([\w:.]+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*&?\s*\1\s*&")
_FORK_LOOP = re.compile(r"fork\s*(\(\s*\))?\s*while\s+fork|while.*os\.fork\(\)")
_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")
_MAX_DEPTH = 4


def check_command(command: str) -> str | None:
    """The reason ``command`` is destructive, or None when nothing dangerous is seen."""
    return _check(command, 0)


def check_risky(command: str) -> str | None:
    """Why ``command`` may lose work or reach beyond the project, or None (module
    docstring). Every command ``check_command`` flags is flagged here too."""
    return check_command(command) or _risky(command, 0)


SimpleCheck = Callable[[list[str], int], "str | None"]


def _scan(command: str, depth: int, simple: SimpleCheck) -> str | None:
    """The first reason ``simple`` gives for a command of ``command``: each simple
    command of its chains, and those of its ``$(...)`` substitutions (nested shells are
    ``simple``'s to read, at ``depth + 1``). Deeper than ``_MAX_DEPTH`` it fails closed."""
    if depth > _MAX_DEPTH:
        return (
            f"nested more than {_MAX_DEPTH} levels deep (bash -c, eval, a here-string, $(...)): "
            "too deep to read, so treated as destructive"
        )
    for inner in _SUBSTITUTION.findall(command):
        reason = _scan(inner[0] or inner[1], depth + 1, simple)
        if reason:
            return reason
    previous: list[str] = []
    for separator, words in _simple_commands(command):
        piped = _piped_script(previous, words) if separator in ("|", "|&") else None
        reason = simple(words if piped is None else [*words, "-c", piped], depth)
        if reason:
            return reason
        previous = words
    return None


def _piped_script(source: list[str], shell: list[str]) -> str | None:
    """The script ``echo ... | bash`` (or ``printf``) feeds a shell reading its stdin."""
    unwrapped = _unwrap(source)
    if not unwrapped or posixpath.basename(unwrapped[0]) not in ("echo", "printf"):
        return None
    target = _unwrap(shell)
    name = posixpath.basename(target[0]) if target else ""
    if name not in _SHELLS or _shell_script(name, target[1:]) is not None:
        return None
    return " ".join(a for a in unwrapped[1:] if not re.fullmatch(r"-[neE]+", a))


def _check(command: str, depth: int) -> str | None:
    squeezed = command.replace("\\\n", "")
    if _FORK_BOMB.search(squeezed) or _FORK_LOOP.search(squeezed):
        return "fork bomb: a function or loop that forks itself without end"
    return _scan(squeezed, depth, _check_simple)


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(
        _ansi_c(command).replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>"
    )
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: read it as plainly as possible
        return re.findall(r"[;&|()<>]+|[^\s;&|()<>'\"]+", command)


_ANSI_C = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n"}
_ESCAPES |= {"r": "\r", "t": "\t", "v": "\v"}


def _ansi_c(command: str) -> str:
    """``command`` with each ``$'...'`` (bash's ANSI-C quoting) outside other quotes
    turned into the single-quoted string it stands for."""
    if "$'" not in command:
        return command
    out: list[str] = []
    i, quote = 0, ""
    while i < len(command):
        c = command[i]
        if quote:
            if c == "\\" and quote == '"':
                out.append(command[i : i + 2])
                i += 2
                continue
            quote = "" if c == quote else quote
        elif c == "\\":
            out.append(command[i : i + 2])
            i += 2
            continue
        elif command.startswith("$'", i):
            end = i + 2
            while end < len(command) and command[end] != "'":
                end += 2 if command[end] == "\\" else 1
            out.append(shlex.quote(_ANSI_C.sub(_unescape, command[i + 2 : end])))
            i = end + 1
            continue
        elif c in "'\"":
            quote = c
        out.append(c)
        i += 1
    return "".join(out)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code[0] in "xuU" and len(code) > 1:
        return chr(min(int(code[1:], 16), 0x10FFFF))
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    if code[0] == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return _ESCAPES.get(code, code)


def _simple_commands(command: str) -> list[tuple[str, list[str]]]:
    """``(the separator before it, its words)`` for each simple command."""
    commands: list[tuple[str, list[str]]] = [("", [])]
    for token in _tokens(command):
        if token in _SEPARATORS:
            commands.append((token, []))
        else:
            commands[-1][1].append(token)
    return [(separator, words) for separator, words in commands if words]


_MAX_EXPANSIONS = 64


def _braces(word: str) -> list[str]:
    """The words bash's brace expansion makes of ``word`` (``/{etc,usr}``, ``{/,}``), at
    most ``_MAX_EXPANSIONS``; quotes are gone by now, so quoted braces expand too."""
    if "{" not in word or "," not in word:
        return [word]
    return list(itertools.islice(_expand_braces(word), _MAX_EXPANSIONS)) or [word]


def _expand_braces(word: str) -> Iterator[str]:
    start = 0
    while (start := word.find("{", start)) >= 0:
        depth, commas, end = 0, [], -1
        for j in range(start, len(word)):
            if word[j] == "{":
                depth += 1
            elif word[j] == "}":
                depth -= 1
                if not depth:
                    end = j
                    break
            elif word[j] == "," and depth == 1:
                commas.append(j)
        if end < 0:
            break
        if commas and not word[:start].endswith("$"):
            bounds = [start, *commas, end]
            for a, b in itertools.pairwise(bounds):
                yield from _expand_braces(word[:start] + word[a + 1 : b] + word[end + 1 :])
            return
        start += 1
    yield word


def _unwrap(words: list[str]) -> list[str]:
    """The words of the command actually run, wrappers and assignments removed."""
    i = 0
    while i < len(words):
        word = words[i]
        name = posixpath.basename(word)
        if word in _KEYWORDS or _ASSIGNMENT.match(word):
            i += 1
        elif name in _WRAPPERS:
            takes_value = _WRAPPERS[name]
            i += 1
            while i < len(words) and (words[i].startswith("-") or _ASSIGNMENT.match(words[i])):
                i += 2 if words[i] in takes_value else 1
            i += _POSITIONAL_WRAPPERS.get(name, 0)
        else:
            break
    return words[i:]


def _check_simple(words: list[str], depth: int) -> str | None:
    reason = _check_redirects(words)
    run = _command_run(words)
    if not run:
        return reason
    name = posixpath.basename(run[0])
    args = run[1:]
    if name in _SCRIPT_RUNNERS:
        script = _script_of(words, run)
        if script is not None:
            return _check(script, depth + 1)
    check = _CHECKS.get(name)
    if check is None and name.startswith("mkfs"):
        check = _check_mkfs
    return (check(args) if check else None) or reason


def _command_run(words: list[str]) -> list[str]:
    """The words of the command actually run: braces expanded, wrappers removed."""
    return _unwrap([expanded for word in words for expanded in _braces(word)])


def _script_of(words: list[str], run: list[str]) -> str | None:
    """The script the runner ``run`` reads, taken from its words as written when they
    name the same runner (a quoted ``-c '{a,b}'`` is not brace-expanded by the shell)."""
    written = _unwrap(words)
    name = posixpath.basename(run[0])
    if written and posixpath.basename(written[0]) == name:
        return _shell_script(name, written[1:])
    return _shell_script(name, run[1:])


def _shell_script(name: str, args: list[str]) -> str | None:
    """The script a shell, ``su`` or ``eval`` runs: its ``-c`` argument, a here-string
    (``bash <<< '...'``), or eval's words."""
    if name == "eval":
        return " ".join(args)
    for i, arg in enumerate(args):
        if arg == "<<<" or (arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]):
            return args[i + 1] if i + 1 < len(args) else None
    return None


def _check_redirects(words: list[str]) -> str | None:
    for i, word in enumerate(words):
        if word.startswith(">") or word.endswith(">"):
            target = words[i + 1] if word in (">", ">>") and i + 1 < len(words) else ""
            if _DISK.match(target):
                return f"writes straight to the disk device {target}"
    return None


_EVERY_ENTRY = re.compile(r"\.?(?:\[[!^]?\.\]|[.?*])*\*")  # *, .*, .??*, .[!.]*, **


def _danger_target(arg: str, *, relative: bool = True) -> str | None:
    """Why deleting ``arg`` recursively would be a disaster, or None. ``relative`` also
    flags the current and parent directories themselves (``.``, ``*``, ``.*``, ``../``).
    A glob naming every entry or every dotfile (``~/.*``) counts as its directory."""
    for home in ("~", "$HOME", "${HOME}"):
        if arg == home or arg.startswith(home + "/"):
            rest = posixpath.normpath(re.sub(r"/+", "/", "/" + arg[len(home) :]))
            everything = rest == "/" or _EVERY_ENTRY.fullmatch(rest[1:]) is not None
            return "the home directory" if everything else None
    if arg.startswith("/"):
        path = posixpath.normpath(re.sub(r"/+", "/", arg))
        if path in ("/", "/*") or (posixpath.dirname(path) == "/" and "*" in path):
            return "the root directory"
        whole = _EVERY_ENTRY.fullmatch(posixpath.basename(path)) is not None
        if path in _SYSTEM_DIRS or (whole and posixpath.dirname(path) in _SYSTEM_DIRS):
            return f"the system directory {path}"
        return None
    path = posixpath.normpath(arg)
    parts = path.split("/")
    if relative and (path == "." or all(p == ".." or _EVERY_ENTRY.fullmatch(p) for p in parts)):
        return f"everything in the current or a parent directory ({arg})"
    return None


def _operands(args: list[str]) -> tuple[set[str], list[str]]:
    """``(short and long flags, operands)`` with ``--`` ending the flags."""
    flags: set[str] = set()
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            ended = True
        elif arg.startswith("--"):
            flags.add(arg.split("=", 1)[0])
        else:
            flags.update(f"-{c}" for c in arg[1:])
    return flags, operands


def _check_rm(args: list[str]) -> str | None:
    flags, operands = _operands(args)
    if "--no-preserve-root" in flags:
        return "rm --no-preserve-root: deletes the root directory"
    if not flags & {"-r", "-R", "--recursive"}:
        return None
    for operand in operands:
        target = _danger_target(operand)
        if target:
            return f"rm -r on {target}"
    return None


def _check_recursive_mode(args: list[str]) -> str | None:
    flags, operands = _operands(args)
    if not flags & {"-R", "--recursive"}:
        return None
    for operand in operands[1:]:
        target = _danger_target(operand)
        if target:
            return f"recursive permission change on {target}"
    return None


def _check_find(args: list[str]) -> str | None:
    if "-delete" not in args and not ("-exec" in args and "rm" in args):
        return None
    for arg in args:
        if arg.startswith("-"):
            break
        target = _danger_target(arg, relative=False)
        if target:
            return f"find deleting under {target}"
    return None


def _check_git(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # git -C dir -c k=v --git-dir=...
        i += 2 if args[i] in ("-C", "-c") else 1
    if i >= len(args) or args[i] != "push":
        return None
    flags, operands = _operands(args[i + 1 :])
    refspecs = operands[1:]
    protected = [r for r in refspecs if _protected_branch(r)]
    if "--mirror" in flags:
        return "git push --mirror: overwrites every branch of the remote"
    if flags & {"--delete", "-d"} and protected:
        return f"git push deleting {protected[0]}"
    if any(r.startswith(":") and _protected_branch(r) for r in refspecs):
        return f"git push deleting {protected[0]}"
    forced = flags & {"-f", "--force", "--force-with-lease", "--force-if-includes"}
    plus = [r for r in protected if r.startswith("+")]
    if plus:
        return f"git push forcing {plus[0]} (a '+' refspec is a force push)"
    if forced and protected:
        return f"git push {sorted(forced)[0]} to {protected[0]}"
    current = [r for r in refspecs if r.lstrip("+") in ("HEAD", "@")]
    if (forced and current) or any(r.startswith("+") for r in current):
        return (
            f"git push forcing {current[0]} pushes the current branch, which may be main/master; "
            "name the branch (git push --force origin my-branch)"
        )
    if forced and not refspecs:
        return (
            f"git push {sorted(forced)[0]} without naming a branch may overwrite main/master; "
            "name the branch (git push --force origin my-branch)"
        )
    return None


def _protected_branch(refspec: str) -> bool:
    destination = refspec.lstrip("+").rsplit(":", 1)[-1]
    return destination.removeprefix("refs/heads/") in ("main", "master")


def _check_dd(args: list[str]) -> str | None:
    for arg in args:
        if arg.startswith("of=") and _DISK.match(arg[3:]):
            return f"dd writing over the disk device {arg[3:]}"
    return None


def _check_mkfs(args: list[str]) -> str | None:
    return "makes a new filesystem (erases the device)"


def _check_disk_writer(args: list[str]) -> str | None:
    disks = [a for a in args if _DISK.match(a)]
    return f"overwrites the disk device {disks[0]}" if disks else None


def _check_copy(args: list[str]) -> str | None:
    _, operands = _operands(args)
    if len(operands) > 1 and _DISK.match(operands[-1]):
        return f"copies over the disk device {operands[-1]}"
    return None


def _check_wipefs(args: list[str]) -> str | None:
    flags, _ = _operands(args)
    return "wipefs erasing filesystem signatures" if flags & {"-a", "--all"} else None


_CHECKS = {
    "rm": _check_rm,
    "chmod": _check_recursive_mode,
    "chown": _check_recursive_mode,
    "chgrp": _check_recursive_mode,
    "find": _check_find,
    "git": _check_git,
    "dd": _check_dd,
    "mke2fs": _check_mkfs,
    "mkswap": _check_disk_writer,
    "shred": _check_disk_writer,
    "blkdiscard": _check_disk_writer,
    "wipefs": _check_wipefs,
    "cp": _check_copy,
    "tee": _check_disk_writer,
}


# -- the risky reading (check_risky) ----------------------------------------------------

_PIPED_DOWNLOAD = re.compile(
    r"\b(curl|wget)\b[^;&|]*\|\s*(sudo\s+|env\s+)*(ba|z|da|k)?sh\b(?!\s*-n)"
)
_AS_ROOT = frozenset({"sudo", "doas", "su", "pkexec"})
_SYSTEM_PACKAGERS = frozenset({"apt", "apt-get", "aptitude", "dnf", "yum", "zypper", "pacman"})
_PACKAGE_ACTIONS = frozenset({"install", "remove", "purge", "upgrade", "autoremove", "-S", "-R"})


def _risky(command: str, depth: int) -> str | None:
    squeezed = command.replace("\\\n", "")
    piped = _PIPED_DOWNLOAD.search(squeezed)
    if piped:
        return f"pipes a download into a shell ({piped.group(1)} ... | sh)"
    return _scan(squeezed, depth, _risky_simple)


def _risky_simple(words: list[str], depth: int) -> str | None:
    unwrapped = _command_run(words)
    wrappers = words[: max(len(words) - len(_unwrap(words)), 0)]
    root = next((w for w in (*wrappers, *unwrapped[:1]) if posixpath.basename(w) in _AS_ROOT), "")
    if root:
        return f"runs as root ({posixpath.basename(root)})"
    if not unwrapped:
        return None
    name, args = posixpath.basename(unwrapped[0]), unwrapped[1:]
    if name in _SCRIPT_RUNNERS:
        script = _script_of(words, unwrapped)
        if script is not None:
            return _risky(script, depth + 1)
    check = _RISKY.get(name)
    return check(args) if check is not None else None


def _risky_rm(args: list[str]) -> str | None:
    _, operands = _operands(args)
    if not operands:
        return None
    named = " ".join(operands[:3]) + (" ..." if len(operands) > 3 else "")
    return f"rm deletes {named} for good"


def _risky_find(args: list[str]) -> str | None:
    return "find -delete deletes files for good" if "-delete" in args else None


def _risky_git(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c") else 1
    if i >= len(args):
        return None
    verb, rest = args[i], args[i + 1 :]
    flags, operands = _operands(rest)
    if verb == "push":
        return "git push publishes to a remote"
    if verb == "reset" and "--hard" in flags:
        return "git reset --hard discards uncommitted changes"
    if verb == "clean" and flags & {"-f", "--force"}:
        return "git clean -f deletes untracked files"
    discards = (verb == "checkout" and ("--" in rest or "." in operands)) or (
        verb == "restore" and (not flags & {"--staged", "-S"} or bool(flags & {"--worktree", "-W"}))
    )
    if discards:
        return f"git {verb} discards changes to files"
    if verb == "stash" and operands[:1] in (["drop"], ["clear"]):
        return f"git stash {operands[0]} deletes stashed changes"
    if verb == "branch" and flags & {"-D"}:
        return "git branch -D deletes a branch that may not be merged"
    return None


def _risky_packages(args: list[str]) -> str | None:
    action = next((a for a in args if a in _PACKAGE_ACTIONS), None)
    return f"changes the system's packages ({action})" if action is not None else None


_RISKY: dict[str, Callable[[list[str]], str | None]] = {
    "rm": _risky_rm,
    "find": _risky_find,
    "git": _risky_git,
    "shred": lambda args: "shred destroys files",
    "truncate": lambda args: "truncate cuts files short",
    "dd": lambda args: "dd writes raw bytes over its output",
    **{name: _risky_packages for name in _SYSTEM_PACKAGERS},
}
