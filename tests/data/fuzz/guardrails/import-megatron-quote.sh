# guard: an unclosed quote in a launch text is refused at its line and column
# entry: import
# expect: fuzz.cfg:5:6: the quote " is never closed
--num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 512
--lr "3e-4
