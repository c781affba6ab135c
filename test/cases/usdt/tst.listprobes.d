/* -l lists a binary's USDT probes: the command is started, held before it runs, listed and killed. */
/* @@opts: -l -c /usr/bin/python3 */
python$target:::gc-start, python$target:::function-entry, libstdcxx$target:::throw { }
