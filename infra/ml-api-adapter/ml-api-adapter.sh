# ml-api-adapter, the FSPs' HTTP front of the switch (POST/PUT/GET /transfers and /fxTransfers to Kafka, and
# the notification handler that turns central-ledger's notifications into FSP callbacks). Not on npm: built
# from its release source as central-ledger is (infra/originals/originals.sh), once per version into the cache.
# Sourced by infra/svc and ./run after common.sh and infra/originals/originals.sh.

MLAPI_HOME="$CACHE_DIR/ml-api-adapter-$ML_API_ADAPTER_VERSION-node${ML_API_ADAPTER_NODE_VERSION%%.*}"
MLAPI_APP="$MLAPI_HOME/app"
MLAPI_NODE_BIN="$MLAPI_HOME/node/node_modules/node/bin"

ml_api_adapter_install() {
  originals_install ml-api-adapter ml-api-adapter "$ML_API_ADAPTER_VERSION" "$ML_API_ADAPTER_COMMIT" \
    https://github.com/mojaloop/ml-api-adapter.git "$ML_API_ADAPTER_NODE_VERSION" "$CENTRAL_LEDGER_NODE_GYP_VERSION" \
    "$ML_API_ADAPTER_PINS" "$MLAPI_HOME" \
    "require('node-rdkafka'); require('@mojaloop/ml-schema-transformer-lib'); console.log('node-rdkafka', require('node-rdkafka').librdkafkaVersion)"
}
