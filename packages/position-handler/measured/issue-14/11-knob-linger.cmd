node packages/bench/dist/cli.js position --transfers 10000 --rate 2000 --knob KAFKA_PRODUCE_LINGER_MS=0,5,20
