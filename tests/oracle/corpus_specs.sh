# The corpus files each spec of specs/ describes, SPEC:FILE[,FILE...], for
# the suites that read them through the spec (sourced by tests/oracle/run.sh
# and tests/python/run.sh).
CORPUS_SPECS="
penguin:tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz
mnist:tfx__mnist.tfrecord
pascal_voc:tf-models__pascal_voc_seg_val-00000-of-00001.tfrecord
taxi:tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz
hadoop:tf-ecosystem__tf-records_part-m-00000,tf-ecosystem__zipped-tf-records_part-m-00000.gz
fake_sequence:pytorch-data__sequence_example.tfrecord
transform_sequence:tf-transform__sequence_example_data_tfrecord.gz
tfx_sequence:tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz
"
