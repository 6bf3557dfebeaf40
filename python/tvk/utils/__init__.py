"""``tvk.utils``: as ``torch.utils``, the mobile optimizer."""
from . import mobile_optimizer  # noqa: F401
