;;; Shared by the Emacs scripts: the record the Rust test reads, waits, and how a run ends.  -*- lexical-binding: t -*-

(require 'json)
(require 'cl-lib)
(require 'subr-x)

(defvar tt-record (make-hash-table :test 'equal)
  "What happened, written as JSON for the Rust test.")

(defun tt-save ()
  (with-temp-file (getenv "TANDEM_TEST_RESULTS")
    (insert (json-serialize tt-record))))

(defun tt-push (key value)
  (puthash key (vconcat (gethash key tt-record []) (vector value)) tt-record)
  (tt-save))

(defun tt-count (key) (length (gethash key tt-record [])))

(defun tt-wait (what predicate)
  "Wait until PREDICATE holds, reading the server meanwhile; fail naming WHAT after 60 s."
  (tt-push "steps" (concat "wait for " what))
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun tt-lines (text)
  (vconcat (split-string (string-remove-suffix "\n" text) "\n")))

(defun tt-file-lines ()
  "The current buffer's lines as the user sees them."
  (tt-lines (buffer-substring-no-properties (point-min) (point-max))))

(defun tt-windows ()
  "Each window's buffer name, and which is selected."
  (list :selected (buffer-name (window-buffer (selected-window)))
        :all (vconcat (mapcar (lambda (w) (buffer-name (window-buffer w))) (window-list)))))

(defun tt-question-window ()
  (get-buffer-window "*tandem question*"))

(defun tt-answers-shown ()
  "The *tandem* window's text from its start: what the user sees first."
  (when-let ((window (get-buffer-window "*tandem*")))
    (with-current-buffer "*tandem*"
      (buffer-substring-no-properties (window-start window) (point-max)))))

(defun tt-eglot-events ()
  "eglot's log of the JSON-RPC traffic: it tells what went wrong."
  (when-let ((server (ignore-errors (eglot-current-server))))
    (with-current-buffer (jsonrpc-events-buffer server)
      (buffer-substring-no-properties (point-min) (point-max)))))

(defun tt-lsp-log ()
  "lsp-mode's log."
  (when-let ((log (get-buffer "*lsp-log*")))
    (with-current-buffer log (buffer-string))))

(defun tt-run (main on-error)
  "Run MAIN; on an error, record it and what ON-ERROR returns; save and exit."
  (let ((ok (condition-case err
                (progn (funcall main) t)
              (error (puthash "error" (format "%S" err) tt-record)
                     (ignore-errors (puthash "debug" (funcall on-error) tt-record))
                     nil))))
    (when ok (puthash "finished" t tt-record))
    (tt-save)
    (kill-emacs (if ok 0 1))))

;;; The reopen story (story.rs `reopen_scenario'), the same for eglot and lsp-mode: ASK asks,
;;; DIFF-WINDOW gives the window of the proposed diff the setup opened.

(defun tt-question-story (ask diff-window)
  (funcall ask "Make the answer 42")
  (tt-wait "the first question" (lambda () (and (tt-question-window) (>= (tt-count "questions") 1))))
  (puthash "asked" (tt-windows) tt-record)
  (let ((diff (funcall diff-window)))
    (puthash "diff_window_when_asked"
             (if (and (window-live-p diff) (not (eq diff (tt-question-window))))
                 (buffer-name (window-buffer diff))
               :null)
             tt-record))
  ;; The user goes to the question and presses C-g.
  (select-window (tt-question-window))
  (execute-kbd-macro (kbd "C-g"))
  (puthash "after_cg" (tt-windows) tt-record)
  (puthash "diff_open_after_cg" (if (window-live-p (funcall diff-window)) t :false) tt-record)
  (tt-wait "the end of the rejected turn" (lambda () (>= (tt-count "messages") 1)))
  (puthash "buffer_after_reject" (with-current-buffer "answer.py" (tt-file-lines)) tt-record)

  ;; Asked again (no turn left stuck); `a' in the question accepts.
  (funcall ask "Try again")
  (tt-wait "the second question" (lambda () (and (tt-question-window) (>= (tt-count "questions") 2))))
  (select-window (tt-question-window))
  (execute-kbd-macro "a")
  (puthash "after_accept" (tt-windows) tt-record)
  (tt-wait "the end of the accepted turn" (lambda () (>= (tt-count "messages") 2)))
  (puthash "buffer_after_accept" (with-current-buffer "answer.py" (tt-file-lines)) tt-record)
  (puthash "answers_shown" (or (tt-answers-shown) :null) tt-record))

(defun tt-resume-story (resume ask)
  "Pick the first session RESUME offers, then ASK once more."
  (cl-letf (((symbol-function 'completing-read)
             (lambda (_prompt collection &rest _)
               (puthash "menu" (vconcat (mapcar #'car collection)) tt-record)
               (caar collection))))
    (call-interactively resume))
  (tt-wait "the resumed session" (lambda () (>= (tt-count "messages") 1)))
  (funcall ask "What is it now?")
  (tt-wait "the answer in the resumed session" (lambda () (>= (tt-count "messages") 2)))
  (puthash "answers_shown" (or (tt-answers-shown) :null) tt-record))
