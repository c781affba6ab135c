import sys

def target(n):
    return n + 1

# CPython 3.11 fires function-entry/return only while a trace or profile
# function is set (its probes sit in the tracing path of the eval loop).
sys.settrace(lambda *a: None)
for i in range(1234):
    target(i)
