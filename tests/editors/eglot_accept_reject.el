;;; The story of story.rs in Emacs with eglot, through the docs' setup; then the transcript.  -*- lexical-binding: t -*-

(load (expand-file-name "emacs_lib.el" (getenv "TANDEM_TEST_SCRIPTS")) nil t)

(defvar tt-answers nil "The titles the approval questions get, in order.")

(defun tt-object (&rest pairs)
  (let ((object (make-hash-table :test 'equal)))
    (while pairs
      (puthash (pop pairs) (pop pairs) object))
    object))

(defun tt-buffer ()
  "The current buffer as the user sees it."
  (tt-object "lines" (tt-file-lines)
             "modified" (if (buffer-modified-p) t :false)))

;; What the server shows, recorded before eglot's own handlers show it.
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key type message &allow-other-keys)
  (tt-push "messages" (tt-object "type" type "message" message)))
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/logMessage)) &key type message &allow-other-keys)
  (tt-push "log" (tt-object "type" type "message" message)))
(cl-defmethod eglot-handle-request :before
  (_server (_method (eql window/showMessageRequest)) &key message actions &allow-other-keys)
  (tt-push "questions" (tt-object "message" message
                                  "actions" (vconcat (mapcar (lambda (a) (plist-get a :title))
                                                             actions)))))

;; The docs' setup shows each question in a buffer and answers by command: the user reads the
;; question there, then answers with the docs' commands, in the order of `tt-answers'.
(cl-defmethod eglot-handle-request :after
  (_server (_method (eql window/showMessageRequest)) &rest _)
  (let ((answer (pop tt-answers))
        (questions (gethash "questions" tt-record)))
    (puthash "answer" (or answer :null) (aref questions (1- (length questions))))
    (tt-save)
    (when answer
      (run-at-time 0.05 nil
                   (lambda ()
                     (puthash "window" (with-current-buffer "*tandem question*" (buffer-string))
                              (aref questions (1- (length questions))))
                     (funcall (intern (concat "tandem-" (downcase answer)))))))))

;; The documents the server shows (the proposed diffs), and where the user's cursor stayed.
(cl-defmethod eglot-handle-request :after
  (_server (_method (eql window/showDocument)) &key uri takeFocus &allow-other-keys)
  (let ((path (eglot--uri-to-path uri)))
    (tt-push "shown" (tt-object "path" path
                                "takeFocus" (if (eq takeFocus t) t :false)
                                "lines" (vconcat (split-string (with-temp-buffer
                                                                 (insert-file-contents path)
                                                                 (buffer-string))
                                                               "\n"))
                                "current" (or (buffer-file-name (window-buffer (selected-window)))
                                              "")))))

(defun tt-main ()
  (load (getenv "TANDEM_TEST_SETUP") nil t t)
  (find-file (expand-file-name "answer.py" (getenv "TANDEM_TEST_ROOT")))
  ;; An unsaved change of the user's: the agent must work on the buffer, not on the disk.
  (goto-char (point-min))
  (insert "# The answer, unsaved.\n")
  (let ((eglot-sync-connect t))
    (call-interactively #'eglot))
  (tt-wait "the sidecar to start" (lambda () (eglot-current-server)))

  (setq tt-answers '("Accept" "Accept"))
  (transient-mark-mode 1)
  (push-mark (point-min) t t)
  (goto-char (point-max))
  (tandem-ask "Make the answer 42")
  (deactivate-mark)
  (tt-wait "the answer to the first question" (lambda () (>= (tt-count "messages") 1)))
  (puthash "after_accept" (tt-buffer) tt-record)

  (setq tt-answers '("Reject"))
  (tandem-ask "Now make it 43")
  (tt-wait "the answer to the second question" (lambda () (>= (tt-count "messages") 2)))
  (puthash "after_reject" (tt-buffer) tt-record)
  (puthash "answers_buffer" (with-current-buffer "*tandem*" (buffer-string)) tt-record)

  ;; The command opens it in the selected window (which the command loop would make current).
  (tandem-transcript)
  (tt-wait "the transcript" (lambda () (string-suffix-p ".md" (or (buffer-file-name (window-buffer))
                                                                  ""))))
  (with-current-buffer (window-buffer)
    (puthash "transcript" (tt-object "path" buffer-file-name "text" (buffer-string)) tt-record)))

(tt-run #'tt-main
        #'tt-eglot-events)
