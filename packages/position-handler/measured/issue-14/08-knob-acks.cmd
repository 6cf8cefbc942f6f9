node packages/bench/dist/cli.js position --transfers 20000 --knob KAFKA_ACKS=all,leader
