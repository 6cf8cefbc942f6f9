node packages/bench/dist/cli.js position --transfers 20000 --knob KAFKA_MAX_BYTES_PER_PARTITION=262144,1048576,4194304
