"""Write a provider driver over the shared streaming skeleton (docs/drivers.md).

``StreamingDriver`` does what every HTTP streaming driver needs (retries before the first
item, interrupt from any thread, flushing held text on failure, closing the response,
scrubbing keys, naming the URL and the attempts in connection errors); a subclass gives
its vendor's request body, how to start one HTTP attempt, how to classify its SDK's
errors, and a pure ``Normaliser`` of the decoded items. The text guard (``guard``,
``close_block``, ``flush_held``, ``clean``, ``clean_error``) is what the shipped
normalisers use to keep every string valid Unicode and free of the driver's keys.
"""

from ._common.base import ApiKeySource as ApiKeySource
from ._common.base import Failure as Failure
from ._common.base import failure_from_status as failure_from_status
from ._common.call import Close as Close
from ._common.content import MediaSupport as MediaSupport
from ._common.content import check_media as check_media
from ._common.guard import MIN_KEY_LENGTH as MIN_KEY_LENGTH
from ._common.guard import REDACTED as REDACTED
from ._common.guard import DeltaClass as DeltaClass
from ._common.guard import Held as Held
from ._common.guard import clean as clean
from ._common.guard import clean_error as clean_error
from ._common.guard import close_block as close_block
from ._common.guard import flush_held as flush_held
from ._common.guard import guard as guard
from ._common.guard import secret_keys as secret_keys
from ._common.normaliser import Events as Events
from ._common.normaliser import Normaliser as Normaliser
from ._common.retry import RetryPolicy as RetryPolicy
from ._common.stream import KEYS_REMEMBERED as KEYS_REMEMBERED
from ._common.stream import StreamingDriver as StreamingDriver

__all__ = [
    "ApiKeySource",
    "Close",
    "DeltaClass",
    "Events",
    "Failure",
    "Held",
    "KEYS_REMEMBERED",
    "MIN_KEY_LENGTH",
    "MediaSupport",
    "Normaliser",
    "REDACTED",
    "RetryPolicy",
    "StreamingDriver",
    "check_media",
    "clean",
    "clean_error",
    "close_block",
    "failure_from_status",
    "flush_held",
    "guard",
    "secret_keys",
]
