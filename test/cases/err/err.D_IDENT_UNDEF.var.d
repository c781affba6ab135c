BEGIN { trace(nosuch); }
