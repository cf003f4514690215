"""The same script on GluonTS 0.10: `train` takes `num_workers` into `**kwargs` and ignores it, and
its loader starts no processes, so the script body trains once, in this process."""
import multiprocessing

import numpy as np
from gluonts.dataset.common import ListDataset
from gluonts.model.simple_feedforward import SimpleFeedForwardEstimator
from gluonts.mx.trainer import Trainer

multiprocessing.set_start_method("spawn", force=True)

load = ListDataset([{"start": "2021-03-01 00:00", "target": np.cos(np.arange(900) / 24.0)}], freq="1H")
estimator = SimpleFeedForwardEstimator(freq="1H", prediction_length=24, trainer=Trainer(epochs=4))
predictor = estimator.train(load, num_workers=2)
print(predictor.prediction_length)
