# A launch line as a script passes it: comments, continuations, quotes.
python pretrain_gpt.py \
    --num-layers 32 --hidden-size 4096 --num-attention-heads 32 \
    --swiglu --normalization RMSNorm --position-embedding-type rope \
    --tokenizer-type NullTokenizer --vocab-size 32000 \
    --seq-length 4096 --micro-batch-size 1 --global-batch-size 64 \
    --tensor-model-parallel-size 2 \
    --bf16 \
    --frobnicate-the-widgets 3 \
    --lr "3.0e-4"
