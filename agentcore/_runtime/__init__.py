"""_runtime: see DESIGN.md, Layout."""
