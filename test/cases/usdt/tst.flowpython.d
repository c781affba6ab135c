/* -F with USDT probes named function-entry and function-return (Python's, as the seeds' sh_flow and py_flow scripts use the sh and python providers): entries indent, returns unindent (the trace function CPython needs, a lambda, is left out: it fires returns only). */
/* @@opts: -q -F -c '/usr/bin/python3 flow.py' */
python$target:::function-entry,
python$target:::function-return
/basename(copyinstr(arg0)) == "flow.py" && copyinstr(arg1) != "<lambda>"/
{
	printf("%s\n", copyinstr(arg1));
}
