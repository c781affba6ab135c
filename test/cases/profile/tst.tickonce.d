/* @@opts: -q */
tick-1s { @[probename] = count(); } tick-10ms /++i == 3/ { exit(0); }
