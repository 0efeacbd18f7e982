start_helper() {
  python helper.py
}
start_helper
python app.py --port 5000
