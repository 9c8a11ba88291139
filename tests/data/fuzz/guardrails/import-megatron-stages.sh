# guard: a pipeline of more stages than layers is refused before its stages are listed
# entry: import
# expect: --decoder-first-pipeline-num-layers
--num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 512
--micro-batch-size 1 --global-batch-size 8 --tokenizer-type NullTokenizer --vocab-size 1000
--pipeline-model-parallel-size 2147483647 --decoder-first-pipeline-num-layers 1
