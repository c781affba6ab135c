/* @@opts: -l */
BEGIN, END, ERROR
