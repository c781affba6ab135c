/* @@opts: -q */
BEGIN { @mn = min(5); @mn = min(-3); @mn = min(8); @mx = max(5); @mx = max(-3); @mx = max(8); printa("%@d %@d\n", @mn, @mx); exit(0); }
