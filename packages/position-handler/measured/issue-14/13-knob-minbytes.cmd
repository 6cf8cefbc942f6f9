node packages/bench/dist/cli.js position --transfers 10000 --rate 2000 --knob KAFKA_FETCH_MIN_BYTES=1,16384,65536
