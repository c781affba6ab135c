/* A process without the USDT provider named is a description that matches no probes (D_PDESC_ZERO), and says why. */
/* @@opts: -c 'sleep 1' */
/* @@stderr: has no USDT probes */
foo$target:::bar { @ = count(); }
