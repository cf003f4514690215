from horovod.torch.basics import Basics

_basics = Basics()
rank = _basics.rank
local_rank = _basics.local_rank
