"""Sub-agents and handoffs: agent definitions, the registry that builds trees of agents
from them, the tags their events carry, programmatic steps, and handing a conversation
over to another agent. See docs/subagents.md and docs/handoffs.md."""

from ._agents.definition import AgentDefinition as AgentDefinition
from ._agents.definition import Handoff as Handoff
from ._agents.definition import HistoryFilter as HistoryFilter
from ._agents.definition import OutputMode as OutputMode
from ._agents.definition import load_definitions as load_definitions
from ._agents.handoffs import handoff_of as handoff_of
from ._agents.handoffs import handoff_view as handoff_view
from ._agents.handoffs import speaker as speaker
from ._agents.limits import TreeLimits as TreeLimits
from ._agents.registry import AgentRegistry as AgentRegistry
from ._agents.replay import replay_tree as replay_tree
from ._agents.results import SpawnOutcome as SpawnOutcome
from ._agents.steps import STEP as STEP
from ._agents.steps import STEP_ALL as STEP_ALL
from ._agents.steps import StepContext as StepContext
from ._agents.steps import StepResult as StepResult
from ._agents.steps import StepsDivergedError as StepsDivergedError
from ._agents.steps import ToolCall as ToolCall
from ._agents.tree import AgentNode as AgentNode
from ._agents.tree import node_of as node_of
from ._loop.lineage import Lineage as Lineage
from ._loop.lineage import SubagentEvent as SubagentEvent
from ._loop.lineage import TreeUsage as TreeUsage
from ._loop.lineage import child_run_id as child_run_id
from ._loop.lineage import root_run_id as root_run_id
from ._loop.lineage import tree_usage as tree_usage
from ._loop.steps_record import StepsYield as StepsYield

__all__ = [
    "AgentDefinition",
    "AgentNode",
    "AgentRegistry",
    "Handoff",
    "HistoryFilter",
    "Lineage",
    "OutputMode",
    "STEP",
    "STEP_ALL",
    "SpawnOutcome",
    "StepContext",
    "StepResult",
    "StepsDivergedError",
    "StepsYield",
    "SubagentEvent",
    "ToolCall",
    "TreeLimits",
    "TreeUsage",
    "child_run_id",
    "handoff_of",
    "handoff_view",
    "load_definitions",
    "node_of",
    "replay_tree",
    "root_run_id",
    "speaker",
    "tree_usage",
]
