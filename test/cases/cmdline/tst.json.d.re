\{"type":"printf","probe":\{"cpu":\d+,"id":1,"provider":"dtrace","module":"","function":"","name":"BEGIN"\},"text":"hi 3\\n"\}
\{"type":"trace","probe":\{"cpu":\d+,"id":1,"provider":"dtrace","module":"","function":"","name":"BEGIN"\},"value":5\}
\{"type":"aggregation","name":"a","id":0,"func":"count","rows":\[\{"keys":\["x"\],"value":1\}\]\}
