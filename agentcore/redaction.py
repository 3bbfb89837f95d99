"""Keys kept out of logs: ``guard_logs`` scrubs given secrets from the records of named
loggers (an SDK's own debug logs included), ``url_secrets`` finds the secrets a URL
carries (user name, password, query values) and ``Redactor`` replaces them in text.
Drivers and toolsets call these for their credentials; events and journals are scrubbed
by the conversation itself."""

from ._runtime.secret_logs import MIN_SECRET_LENGTH as MIN_SECRET_LENGTH
from ._runtime.secret_logs import Redactor as Redactor
from ._runtime.secret_logs import guard_logs as guard_logs
from ._runtime.secret_logs import url_secrets as url_secrets

__all__ = ["MIN_SECRET_LENGTH", "Redactor", "guard_logs", "url_secrets"]
