/* python3's own USDT probes, behind semaphores: gc-start counts gc.collect(1) exactly, with its generation in arg0. */
/* @@opts: -q -c '/usr/bin/python3 gc.py' */
python$target:::gc-start /arg0 == 1/ { @[probeprov == strjoin("python", lltostr($target)) ? "python$target" : probeprov, probemod, probename, arg0] = count(); }
