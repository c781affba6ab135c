# flow: a workload for -F (flowindent) with Python's USDT probes: a()
# calls b(), which calls c(). CPython 3.11 fires function-entry only while
# a trace function is set (see func.py).
import sys

def c():
    return 1


def b():
    return c() + 1


def a():
    return b() + 1


sys.settrace(lambda *args: None)
a()
