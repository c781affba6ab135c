/* @@opts: -q */
BEGIN { @["a"] = count(); @["bb"] = count(); @["bb"] = count(); exit(0); }
