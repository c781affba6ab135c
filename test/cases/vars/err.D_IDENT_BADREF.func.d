/* @@stderr: tracing function 'printf' may not be referenced as scalar */
BEGIN { x = printf; }
