"""_testing: see DESIGN.md, Layout."""
