/* @@opts: -q */
BEGIN { @["z"] = count(); printa(@); exit(0); }
