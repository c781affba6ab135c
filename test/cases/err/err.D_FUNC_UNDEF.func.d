BEGIN { nosuch(1); }
