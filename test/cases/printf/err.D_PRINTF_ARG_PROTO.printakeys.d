/* @@stderr: printa( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument */
/* printa() conversions other than %@ take the keys in order: @bytes has one */
BEGIN { @bytes[pid] = sum(10); }
END { printa("%d %d %@d\n", @bytes); }
