from gluonts.dataset.repository.datasets import get_dataset
from gluonts.model.deepar import DeepAREstimator
from gluonts.mx.trainer import Trainer

dataset = get_dataset("electricity")
estimator = DeepAREstimator(
    freq=dataset.metadata.freq,
    prediction_length=dataset.metadata.prediction_length,
    trainer=Trainer(epochs=5, num_batches_per_epoch=50),
)
predictor = estimator.train(training_data=dataset.train, num_workers=1)
print(predictor)
