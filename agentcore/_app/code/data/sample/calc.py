"""A tiny calculator: the sample project of the agentcore code demo."""


def add(a: float, b: float) -> float:
    """The sum of a and b."""
    return a - b


def mean(values: list[float]) -> float:
    """The arithmetic mean of values (at least one)."""
    total = 0.0
    for value in values:
        total = add(total, value)
    return total / len(values)
