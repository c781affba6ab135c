/* @@stderr: expression has null effect: @a */
/* an aggregation named alone does nothing */
BEGIN { @a = count(); }
END { @a; }
