"""Coding tools: files, shell, search and web, confined to a workspace; the bash guard.

See docs/coding.md.
"""

from ._coding.bash_tool import EnvHook as EnvHook
from ._coding.bash_tool import create_bash_tool as create_bash_tool
from ._coding.edit_match import EditError as EditError
from ._coding.edit_match import apply_edit as apply_edit
from ._coding.edit_match import normalise as normalise
from ._coding.factory import create_all_tools as create_all_tools
from ._coding.factory import create_coding_tools as create_coding_tools
from ._coding.factory import create_read_only_tools as create_read_only_tools
from ._coding.file_tools import create_edit_tool as create_edit_tool
from ._coding.file_tools import create_read_tool as create_read_tool
from ._coding.file_tools import create_write_tool as create_write_tool
from ._coding.guard import check_command as check_command
from ._coding.guard import check_risky as check_risky
from ._coding.local import LocalOperations as LocalOperations
from ._coding.operations import DirEntry as DirEntry
from ._coding.operations import EditOperations as EditOperations
from ._coding.operations import ExecOperations as ExecOperations
from ._coding.operations import ExecResult as ExecResult
from ._coding.operations import GrepLine as GrepLine
from ._coding.operations import GrepQuery as GrepQuery
from ._coding.operations import ListOperations as ListOperations
from ._coding.operations import Operations as Operations
from ._coding.operations import PathOperations as PathOperations
from ._coding.operations import ReadOperations as ReadOperations
from ._coding.operations import SearchOperations as SearchOperations
from ._coding.operations import WriteOperations as WriteOperations
from ._coding.ripgrep import find_ripgrep as find_ripgrep
from ._coding.search_tools import create_find_tool as create_find_tool
from ._coding.search_tools import create_grep_tool as create_grep_tool
from ._coding.search_tools import create_ls_tool as create_ls_tool
from ._coding.shell_operations import ShellOperations as ShellOperations
from ._coding.todo import TodoItem as TodoItem
from ._coding.todo import TodoStore as TodoStore
from ._coding.todo import create_todo_read_tool as create_todo_read_tool
from ._coding.todo import create_todo_write_tool as create_todo_write_tool
from ._coding.web import SearchBackend as SearchBackend
from ._coding.web import SearchResult as SearchResult
from ._coding.web import create_webfetch_tool as create_webfetch_tool
from ._coding.web import create_websearch_tool as create_websearch_tool
from ._coding.workspace import OutsideWorkspaceError as OutsideWorkspaceError
from ._coding.workspace import Workspace as Workspace

__all__ = [
    "DirEntry",
    "EditError",
    "EditOperations",
    "EnvHook",
    "ExecOperations",
    "ExecResult",
    "GrepLine",
    "GrepQuery",
    "ListOperations",
    "LocalOperations",
    "Operations",
    "OutsideWorkspaceError",
    "PathOperations",
    "ReadOperations",
    "SearchBackend",
    "SearchOperations",
    "SearchResult",
    "ShellOperations",
    "TodoItem",
    "TodoStore",
    "Workspace",
    "WriteOperations",
    "apply_edit",
    "check_command",
    "check_risky",
    "create_all_tools",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_only_tools",
    "create_read_tool",
    "create_todo_read_tool",
    "create_todo_write_tool",
    "create_webfetch_tool",
    "create_websearch_tool",
    "create_write_tool",
    "find_ripgrep",
    "normalise",
]
