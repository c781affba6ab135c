/* A process without USDT probes says so. */
/* @@opts: -c 'sleep 1' */
/* @@stderr: has no USDT probes */
foo$target:::bar { @ = count(); }
