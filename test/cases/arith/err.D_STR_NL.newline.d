BEGIN { x = "abc
def"; }
