from enum import StrEnum


class ShapedOutAction(StrEnum):
    CAPPED = "capped"
    COLLAPSED = "collapsed"

    def __str__(self) -> str:
        return str(self.value)
