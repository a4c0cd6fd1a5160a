;;; Loads the docs' agent-shell snippet (TANDEM_TEST_SETUP) with STAND-INS for agent-shell,  -*- lexical-binding: t -*-
;;; which this machine can't install, and runs the command it defines.
;;;
;;; The stand-ins are not agent-shell: they take the keyword arguments the real functions take
;;; (so a misspelt keyword fails here as it would there), call the :client-maker as agent-shell
;;; does when it starts a shell, and RECORD what reaches `agent-shell--make-acp-client': the
;;; command, its parameters and environment. This writes that record as JSON to
;;; TANDEM_TEST_RESULTS; the Rust test starts the command itself and talks ACP to it.

(require 'cl-lib)
(require 'json)

(defvar tt-record (make-hash-table :test 'equal))

(defun tt-save ()
  (with-temp-file (getenv "TANDEM_TEST_RESULTS")
    (insert (json-encode tt-record))))

;; So the snippet's (require 'agent-shell) finds "the package".
(provide 'agent-shell)

;; Stand-in. The real one (agent-shell.el) returns an alist; the keywords are the real ones.
(cl-defun agent-shell-make-agent-config (&rest config
                                         &key identifier mode-line-name welcome-function
                                         buffer-name shell-prompt shell-prompt-regexp
                                         client-maker needs-authentication
                                         authenticate-request-maker default-model-id
                                         default-session-mode-id session-meta mcp-servers
                                         notification-adapter icon-name install-instructions)
  (ignore identifier mode-line-name welcome-function buffer-name shell-prompt
          shell-prompt-regexp client-maker needs-authentication authenticate-request-maker
          default-model-id default-session-mode-id session-meta mcp-servers
          notification-adapter icon-name install-instructions)
  config)

;; Stand-in: records the configuration and makes the client as a new shell would.
(cl-defun agent-shell--dwim (&key config new-shell switch-to-shell)
  (puthash "new_shell" (if new-shell t :json-false) tt-record)
  (puthash "switch_to_shell" (if switch-to-shell t :json-false) tt-record)
  (puthash "identifier" (symbol-name (plist-get config :identifier)) tt-record)
  (puthash "buffer_name" (plist-get config :buffer-name) tt-record)
  (let ((buffer (get-buffer-create (or (plist-get config :buffer-name) "agent-shell"))))
    (funcall (plist-get config :client-maker) buffer)))

;; Stand-in: records what the real one passes on to `acp-make-client'.
(cl-defun agent-shell--make-acp-client (&key command command-params environment-variables
                                             context-buffer)
  (puthash "command" command tt-record)
  (puthash "command_params" (vconcat command-params) tt-record)
  (puthash "environment_variables" (vconcat environment-variables) tt-record)
  (puthash "context_buffer_is_buffer" (if (bufferp context-buffer) t :json-false) tt-record)
  'stand-in-client)

(let ((ok (condition-case err
              (progn
                (load (getenv "TANDEM_TEST_SETUP") nil t t)
                (puthash "interactive" (if (commandp 'tandem-agent-shell) t :json-false)
                         tt-record)
                (call-interactively #'tandem-agent-shell)
                t)
            (error (puthash "error" (format "%S" err) tt-record) nil))))
  (when ok (puthash "finished" t tt-record))
  (tt-save)
  (kill-emacs (if ok 0 1)))
