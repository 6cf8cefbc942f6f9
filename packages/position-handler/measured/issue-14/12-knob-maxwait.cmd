node packages/bench/dist/cli.js position --transfers 10000 --rate 2000 --knob KAFKA_FETCH_MAX_WAIT_MS=10,100,500
