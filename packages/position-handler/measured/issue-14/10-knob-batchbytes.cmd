node packages/bench/dist/cli.js position --transfers 20000 --knob KAFKA_PRODUCE_BATCH_BYTES=100000,800000
