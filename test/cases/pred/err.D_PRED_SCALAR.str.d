BEGIN /"abc"/ { exit(0); }
