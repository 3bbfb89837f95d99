"""_sessions: sessions over any journal, listing and usage queries; see docs/sessions.md."""
