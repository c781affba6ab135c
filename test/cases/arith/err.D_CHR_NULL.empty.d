BEGIN { x = ''; }
