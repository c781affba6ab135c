/* A C++ program's exceptions counted through libstdc++'s throw probe (in a shared library mapped at start-up). */
/* @@setup: g++ -O1 -o /tmp/sonde-throw throw.cc */
/* @@opts: -q -c '/tmp/sonde-throw 25' */
libstdcxx$target:::throw { @[probeprov == strjoin("libstdcxx", lltostr($target)) ? "libstdcxx$target" : probeprov, probename] = count(); }
