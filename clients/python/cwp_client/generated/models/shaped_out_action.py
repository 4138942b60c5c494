from enum import StrEnum


class ShapedOutAction(StrEnum):
    CAPPED = "capped"
    CLEARED = "cleared"
    COLLAPSED = "collapsed"
    IMAGE_CLEARED = "image-cleared"
    THINKING_CLEARED = "thinking-cleared"

    def __str__(self) -> str:
        return str(self.value)
