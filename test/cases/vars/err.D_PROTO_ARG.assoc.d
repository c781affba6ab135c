BEGIN { x[123, "foo"] = 1; } END { x[123, 456] = 2; }
