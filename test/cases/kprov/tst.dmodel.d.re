sonde LP64
target ILP32 off-cpu 5[0-9]

