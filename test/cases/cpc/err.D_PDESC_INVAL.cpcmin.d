/* @@stderr: count 100 is below the minimum of 100000 ns for a clock */
cpc:::cpu-clock-all-100 { @ = count(); }
