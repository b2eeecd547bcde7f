set bnb4_ort {}
